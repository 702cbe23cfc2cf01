import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './rateRecipe';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('submits a four-star rating for the recipe', async () => {
  fetchMock.post('/api/recipes/12/ratings', { status: 201, body: { average: 4.2 } });

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByTestId('star-4')); });

  expect(fetchMock.calls('/api/recipes/12/ratings').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/recipes/12/ratings').body)).toEqual({ rating: 4 });
  expect(screen.getByText(/thanks for rating/i)).toBeInTheDocument();
}, 10000);

test('shows an error when the rating is not accepted', async () => {
  fetchMock.post('/api/recipes/12/ratings', 500);

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByTestId('star-4')); });

  expect(fetchMock.calls('/api/recipes/12/ratings').length).toBe(1);
  expect(screen.getByText(/rating failed/i)).toBeInTheDocument();
  expect(screen.queryByText(/thanks for rating/i)).not.toBeInTheDocument();
}, 10000);
