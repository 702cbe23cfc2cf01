import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import EventList from './EventList';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('lists upcoming events with their dates', async () => {
  fetchMock.get('/api/events?upcoming=true', [
    { id: 'e1', name: 'Design Systems Meetup', date: '2025-04-02' },
    { id: 'e2', name: 'Open Source Summit', date: '2025-05-19' },
  ]);

  await act(async () => { render(<EventList />); });

  expect(fetchMock.called('/api/events?upcoming=true')).toBe(true);
  expect(screen.getByTestId('event-e1')).toHaveTextContent('Design Systems Meetup');
  expect(screen.getByTestId('event-e1')).toHaveTextContent('2025-04-02');
  expect(screen.getByTestId('event-e2')).toHaveTextContent('Open Source Summit');
  expect(screen.getByTestId('event-e2')).toHaveTextContent('2025-05-19');
}, 10000);

test('shows an error when events cannot be loaded', async () => {
  fetchMock.get('/api/events?upcoming=true', 500);

  await act(async () => { render(<EventList />); });

  expect(fetchMock.called('/api/events?upcoming=true')).toBe(true);
  expect(screen.getByText(/failed to load events/i)).toBeInTheDocument();
}, 10000);
