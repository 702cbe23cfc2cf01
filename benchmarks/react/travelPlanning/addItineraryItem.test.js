import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './addItineraryItem';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('adds a stop to the itinerary once the server accepts it', async () => {
  fetchMock.post('/api/itinerary', { status: 201, body: { id: 9, place: 'Louvre Museum', day: 2 } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/place/i), { target: { value: 'Louvre Museum' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/day/i), { target: { value: '2' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/add to itinerary/i)); });

  expect(fetchMock.calls('/api/itinerary').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/itinerary').body)).toMatchObject({
    place: 'Louvre Museum',
    day: 2,
  });
  expect(screen.getByText('Day 2: Louvre Museum')).toBeInTheDocument();
}, 10000);

test('does not add the stop when the server rejects it', async () => {
  fetchMock.post('/api/itinerary', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/place/i), { target: { value: 'Louvre Museum' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/day/i), { target: { value: '2' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/add to itinerary/i)); });

  expect(fetchMock.calls('/api/itinerary').length).toBe(1);
  expect(screen.queryByText('Day 2: Louvre Museum')).not.toBeInTheDocument();
  expect(screen.getByText(/could not add to itinerary/i)).toBeInTheDocument();
}, 10000);
