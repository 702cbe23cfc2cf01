import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './saveFavoriteCity';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('saves a city to the favorites', async () => {
  fetchMock.post('/api/favorites', { status: 201, body: { city: 'Lisbon' } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/city name/i), { target: { value: 'Lisbon' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/add to favorites/i)); });

  expect(fetchMock.calls('/api/favorites').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/favorites').body)).toMatchObject({ city: 'Lisbon' });
  expect(screen.getByText('Lisbon added to favorites')).toBeInTheDocument();
}, 10000);

test('shows an error when the favorite cannot be saved', async () => {
  fetchMock.post('/api/favorites', { throws: new TypeError('Failed to fetch') });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/city name/i), { target: { value: 'Lisbon' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/add to favorites/i)); });

  expect(fetchMock.calls('/api/favorites').length).toBe(1);
  expect(screen.getByText(/could not save favorite/i)).toBeInTheDocument();
}, 10000);
